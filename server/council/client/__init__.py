"""A headless client of the sidecar: strict JSON-RPC framing over a subprocess's stdio, typed calls."""
