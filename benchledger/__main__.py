import sys

from benchledger.cli.main import main

sys.exit(main())
