"""interfaces: see README "How it is built"."""
