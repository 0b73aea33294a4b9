from __future__ import annotations

import sys

from memory_autopsy.cli import main

sys.exit(main())
