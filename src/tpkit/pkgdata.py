"""The text of a data file shipped inside a tpkit package (``<package>/data/NAME``).

Read from the file beside the module when there is one (a plain or editable install: no ``importlib.resources``
import, which costs a few milliseconds at every start), else through ``importlib.resources`` (a zipped install).
"""

from __future__ import annotations

import os

__all__ = ["data_text"]


def data_text(module_file: str, package: str, name: str) -> str:
    """The text of ``data/NAME`` next to ``module_file`` (the caller's ``__file__``) in ``package``."""
    path = os.path.join(os.path.dirname(module_file), "data", name)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    from importlib import resources

    return resources.files(package).joinpath("data", name).read_text(encoding="utf-8")
