"""Suite-wide settings: hypothesis draws the same examples on every run (derandomized), so
`make test` is deterministic; `HYPOTHESIS_PROFILE=explore` searches with fresh random seeds."""

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
