"""All-reduce: pure dispatch (``comm.dispatch``) over backends (``comm.backends``)."""
