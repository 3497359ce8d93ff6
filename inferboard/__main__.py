import sys

from inferboard.cli import main

sys.exit(main())
