"""Command-line entry points: ``council serve`` (the sidecar) and the headless clients."""
