/** Command ids, as contributed in package.json (`contributes.commands`). */
export const Commands = {
  compactConversation: 'contextKeeper.compactConversation',
  newAgentTask: 'contextKeeper.newAgentTask',
  cancel: 'contextKeeper.cancel',
  setApiKey: 'contextKeeper.setApiKey',
  clearApiKey: 'contextKeeper.clearApiKey',
  openCheckpoint: 'contextKeeper.openCheckpoint',
  restoreCheckpoint: 'contextKeeper.restoreCheckpoint',
  diffCheckpoint: 'contextKeeper.diffCheckpoint',
  copySummary: 'contextKeeper.copySummary',
  pinMessage: 'contextKeeper.pinMessage',
  importTranscript: 'contextKeeper.importTranscript',
  exportTranscript: 'contextKeeper.exportTranscript',
  showLog: 'contextKeeper.showLog',
  showSidebar: 'contextKeeper.showSidebar',
  applyPreview: 'contextKeeper.applyPreview',
  discardPreview: 'contextKeeper.discardPreview',
  /** Internal: the sidebar's approval buttons. Hidden from the palette. */
  answerApproval: 'contextKeeper.answerApproval',
} as const;
