import sys

from tpkit._entry import main

sys.exit(main())
