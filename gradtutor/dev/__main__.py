"""`python -m gradtutor.dev check|new-lesson ...`: the dev verbs, also before the CLI lists them."""
import sys

from gradtutor.dev import main

sys.exit(main())
