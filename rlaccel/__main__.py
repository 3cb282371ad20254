import sys

from rlaccel.cli import main

sys.exit(main())
