"""Stand-in for the NeMo-Run names workloads/nemo-inproc.py uses (tests only):
the container's NeMo-Run, older than the scripts' pins, so its SlurmExecutor
has no segment or network keyword and raises TypeError on them, as an old
NeMo-Run does. ../../nemo-run-clone is the pinned one."""
import copy
import os

STANDIN = "container"


class _Buildable:
    def __init__(self, fn, **kw):
        self.__dict__["fn"] = fn
        self.__dict__["kw"] = dict(kw)

    def __getattr__(self, k):
        try:
            return self.__dict__["kw"][k]
        except KeyError:
            raise AttributeError(k)

    def __setattr__(self, k, v):
        self.__dict__["kw"][k] = v

    def clone(self):
        return copy.deepcopy(self)

    def to_dict(self):
        def conv(v):
            if isinstance(v, _Buildable):
                return v.to_dict()
            if isinstance(v, list):
                return [conv(x) for x in v]
            return v
        return {"_fn": self.fn, **{k: conv(v) for k, v in self.kw.items()}}


class Config(_Buildable):
    pass


class Partial(_Buildable):
    pass


class Launcher:
    def __init__(self):
        self.nsys_profile = False
        self.nsys_folder = "nsys_profile"
        self.nsys_filename = "profile_%p"
        self.nsys_trace = ["nvtx", "cuda"]
        self.nsys_gpu_metrics = False

    def get_nsys_prefix(self, profile_dir):
        if self.nsys_profile:
            return ["profile", "-s", "none", "-t", ",".join(self.nsys_trace), "-o",
                    f"{os.path.join(profile_dir, self.nsys_folder)}/{self.nsys_filename}"]


class Script:
    def __init__(self, inline):
        self.inline = inline


class SlurmTemplate(Launcher):
    def __init__(self, template_inline, template_vars):
        super().__init__()
        self.template_inline = template_inline
        self.template_vars = template_vars

    def transform(self, cmd):
        text = self.template_inline.replace("{{ command }}", " ".join(cmd))
        for k, v in self.template_vars.items():
            text = text.replace("{{ %s }}" % k, v)
        return Script(inline=text)


class Packager:
    pass


class GitArchivePackager(Packager):
    pass


class LocalTunnel:
    def __init__(self, job_dir):
        self.job_dir = job_dir


class SlurmExecutor:
    def __init__(self, nodes, ntasks_per_node, env_vars, packager, launcher=None, srun_args=None, account=None,
                 partition=None, tunnel=None):
        self.nodes, self.ntasks_per_node = nodes, ntasks_per_node
        self.env_vars, self.packager, self.launcher = env_vars, packager, launcher
        self.srun_args, self.setup_lines = srun_args or [], None
        self.account, self.partition, self.tunnel = account, partition, tunnel
        self.job_dir = None

    def clone(self):
        return copy.deepcopy(self)

    def assign(self, exp_id, exp_dir, task_id, task_dir):
        self.job_dir = os.path.join(exp_dir, task_dir)

    def get_launcher(self):
        if self.launcher is None:
            self.launcher = Launcher()
        return self.launcher


class Plugin:
    def assign(self, exp_id):
        self.experiment_id = exp_id


class Experiment:
    """The real one submits a job; this one leaves a trace and fails."""

    def __init__(self, *a, **kw):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add(self, *a, **kw):
        return "x"

    def run(self, *a, **kw):
        with open(os.path.join(os.environ.get("NEMORUN_HOME", "."), "SUBMITTED"), "w") as f:
            f.write("the stand-in Experiment ran\n")
        raise SystemExit(9)


def run(*a, **kw):
    Experiment().run()
