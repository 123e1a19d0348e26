"""``python -m symbolic_tf.cli``: the ``symtf`` command."""
import sys

from . import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
