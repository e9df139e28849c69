"""Every deskcheck error: each carries where it happened (file:line) and the fix."""

from __future__ import annotations


class DeskcheckError(Exception):
    """Base error. ``location`` is ``path:line`` (or a path / qualified name); ``fix`` says what to do."""

    exit_code = 1

    def __init__(self, message: str, *, location: str | None = None, fix: str | None = None):
        self.message = message
        self.location = location
        self.fix = fix
        super().__init__(self.render())

    def render(self) -> str:
        head = f"{self.location}: {self.message}" if self.location else self.message
        return f"{head}\n  fix: {self.fix}" if self.fix else head


class ConfigError(DeskcheckError):
    """Bad configuration or catalog entry: usage error, exit code 2, nothing is run."""

    exit_code = 2

    def __init__(self, message: str, *, location: str | None = None, fix: str | None = None,
                 errors: list[ConfigError] | None = None):
        self.errors = errors or []
        super().__init__(message, location=location, fix=fix)

    def render(self) -> str:
        if not self.errors:
            return super().render()
        return "\n".join([self.message] + ["  " + e.render().replace("\n", "\n  ") for e in self.errors])


class CatalogError(ConfigError):
    """A malformed mutant catalog (all problems collected, each with file:line)."""


class UnknownTargetError(ConfigError):
    """A qualified name (``pkg.mod:Class.method``) that does not resolve."""


class SourceResolutionError(DeskcheckError):
    """Static resolution failed: unresolvable base, syntax error, missing module."""

    exit_code = 2


class DriftError(DeskcheckError):
    """A harness or stub has drifted from the production surface."""


class UnmodelledFieldError(AttributeError, DeskcheckError):
    """A stub was read for a field it does not model (names the field and the production site)."""

    def __init__(self, message: str, *, location: str | None = None, fix: str | None = None):
        DeskcheckError.__init__(self, message, location=location, fix=fix)


class HarnessError(DeskcheckError):
    """A harness declaration is wrong (e.g. binds a non-function)."""

    exit_code = 2


class GitError(DeskcheckError):
    """A git precondition failed: not a repo, unknown ref, shallow clone, dirty tree."""

    exit_code = 2


class RankError(DeskcheckError):
    """One or more ranks failed; message names the ranks and carries their tracebacks."""


class RankTimeoutError(RankError):
    """Ranks hung inside a collective; names the ranks still alive with their stacks."""


class BackendUnavailableError(DeskcheckError):
    """A backend cannot run here (no CUDA, fewer GPUs than ranks)."""

    exit_code = 2


class StoreError(DeskcheckError):
    """The results store (``.deskcheck/results.sqlite``) cannot be used: unreadable, wrong
    schema, unknown run id, or shard stores that do not belong together."""

    exit_code = 2


class GateError(DeskcheckError):
    """A red-first/regression gate could not judge: pytest did not run on a side, or the code
    that ran was not the side's own (base code must be what ran on the base side)."""

    exit_code = 2


class RankAssertionError(RankError, AssertionError):
    """Ranks failed an assertion (a test verdict, not a crash); names the ranks."""


class RankTaskError(DeskcheckError):
    """A task cannot be sent to ranks (e.g. a lambda or closure that does not pickle)."""

    exit_code = 2


class CongruenceError(DeskcheckError, AssertionError):
    """A congruence arm failed: ranks diverged or a rank's safety predicate was violated."""


class VacuousPremiseError(CongruenceError):
    """A congruence arm is vacuous: with the enforcer off the inputs do not diverge."""
