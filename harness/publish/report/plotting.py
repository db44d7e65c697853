"""Whether the report's plots can be drawn: matplotlib is the `report` install extra, which `make setup` installs.

`report` and `bundle` ask before any work (a bundle validates for minutes before it draws), and without it they
stop with the environment's exit code and the command that installs it, never an import error's traceback. The
plots module itself is imported only when a report is drawn, so every other command works without matplotlib."""

from harness.errors import EnvironmentProblem

INSTALL = "make setup (or: .venv/bin/pip install -e '.[report]')"


class PlottingUnavailable(EnvironmentProblem):
    """The report's plotting library is not installed."""


def require_plotting(command: str) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise PlottingUnavailable(f"{command} draws the report's plots with matplotlib, which cannot be imported here "
                                  f"({exc}): run {INSTALL}, then {command} again") from exc
