"""Stand-in for the recipe's pinned NeMo-Run clone in the venv (tests only):
the container's stand-in (site/nemo_run), whose code it runs, plus what
NeMo-Run gained in 2025 and the performance scripts pass: SlurmExecutor's
segment (2025-03-25) and network (2025-05-09) keywords."""
import os

_site = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "site", "nemo_run")
__path__.append(_site)  # nemo_run.core.*: the same stand-in modules
with open(os.path.join(_site, "__init__.py")) as _f:
    exec(compile(_f.read(), _f.name, "exec"))

STANDIN = "pinned"
_ContainerSlurmExecutor = SlurmExecutor  # noqa: F821 (defined by the code above)


class SlurmExecutor(_ContainerSlurmExecutor):
    def __init__(self, *args, segment=None, network=None, **kw):
        super().__init__(*args, **kw)
        self.segment, self.network = segment, network
