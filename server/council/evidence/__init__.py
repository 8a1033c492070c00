"""Evidence tools on the user's workspace: ``read_file``, ``search_code`` and ``list_files``, read-only, confined to
the workspace root, refusing secrets, git-ignored files, binaries and files over 1 MB, each under a time limit.

The engine runs them between debate cycles for the evidence the personas ask for (``council.session.steps.evidence``);
the sidecar builds :class:`~council.evidence.runner.WorkspaceTools` only when it was given a workspace.
"""

from council.evidence.runner import WorkspaceTools

__all__ = ["WorkspaceTools"]
