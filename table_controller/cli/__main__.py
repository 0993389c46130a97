import sys

from table_controller.cli import main

sys.exit(main())
