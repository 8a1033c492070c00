"""Test-wide settings: no test seats the agent CLIs a developer happens to have on PATH (they would make real,
billed calls); the tests in ``tests/agent_clis`` turn it back on with their own CLIs pointed at local servers."""

import os

os.environ.setdefault("COUNCIL_AGENT_CLIS", "0")
