"""``python -m reconcile``: the same as the ``reconcile`` command."""

import sys

from reconcile.cli import main

sys.exit(main())
