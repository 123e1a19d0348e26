"""One checker module per certificate kind (each registers itself with ``@checker``)."""
