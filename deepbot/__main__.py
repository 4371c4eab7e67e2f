import sys

from deepbot.cli import main

sys.exit(main())
