import sys

from benchledger.cli import main

sys.exit(main())
