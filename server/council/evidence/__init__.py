"""Evidence tools on the user's workspace (``read_file``, ``search_code``, ``list_files``): read-only, confined to the
workspace root, each under a time limit. See README, "Evidence, transcripts and decision memory". The sidecar builds
:class:`~council.evidence.tools.WorkspaceTools` only when it was given a workspace.
"""

from council.evidence.tools import WorkspaceTools

__all__ = ["WorkspaceTools"]
