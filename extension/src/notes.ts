/**
 * The chat participant's own few texts, in VS Code's display language (`vscode.l10n`, `l10n/bundle.l10n.*.json`):
 * what is said where no session exists yet, or where the sidecar that would write it is gone. Everything a session
 * says comes from the sidecar, in the session's language.
 */
import * as vscode from 'vscode';

/** The extension's own few texts (no session, or the sidecar that would write them is gone), in VS Code's display language. */
export const WORDS = {
  askExample: () =>
    vscode.l10n.t('Ask the council a hard question, for example: _{0}_', vscode.l10n.t('Should we split our monolith into services this quarter?')) + '\n',
  newQuestion: () => vscode.l10n.t('Type your new question: the council starts a new session for it (the earlier session stays as it is).') + '\n',
  duplicate: () => `_${vscode.l10n.t('That answer was already submitted.')}_\n\n`,
  stopped: () => `\n\n_${vscode.l10n.t('Stopped.')}_\n`,
  noSession: () => vscode.l10n.t('There is no council session in this conversation yet.') + '\n',
  transcriptOpen: () => `_${vscode.l10n.t('The transcript is open in a preview.')}_\n`,
  openTranscriptAgain: () => vscode.l10n.t('Open the transcript again'),
};

/** What only the extension can know (the sidecar that would write it is gone). */
export const NOTES = {
  restarted: () =>
    `> ↻ ${vscode.l10n.t('The council sidecar stopped unexpectedly. It was restarted with your session restored, and this step runs again.')}\n\n`,
  interrupted: () =>
    `> ⚠️ ${vscode.l10n.t('The previous reply was interrupted: VS Code was reloaded while the council was still writing it, so it is incomplete.')}\n\n`,
};
