"""The plant fixtures of the environments layer (``tests/programs/envs/conftest.py``), for
ADHDP's plants."""

from tests.programs.envs.conftest import power, run  # noqa: F401  (fixtures)
