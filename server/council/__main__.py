"""``python -m council …`` is the ``council`` command."""

import sys

from council.cli.main import main

sys.exit(main())
