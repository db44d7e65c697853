import sys

from harness.cli.app import main

sys.exit(main())
