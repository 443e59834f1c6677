import sys

from tpkit.cli import main

sys.exit(main())
