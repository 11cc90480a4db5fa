/** Command ids, as contributed in package.json (`contributes.commands`). */
export const Commands = {
  compactConversation: 'contextKeeper.compactConversation',
  newAgentTask: 'contextKeeper.newAgentTask',
  cancel: 'contextKeeper.cancel',
  setApiKey: 'contextKeeper.setApiKey',
  clearApiKey: 'contextKeeper.clearApiKey',
  openCheckpoint: 'contextKeeper.openCheckpoint',
  restoreCheckpoint: 'contextKeeper.restoreCheckpoint',
  undoRestore: 'contextKeeper.undoRestore',
  diffCheckpoint: 'contextKeeper.diffCheckpoint',
  copySummary: 'contextKeeper.copySummary',
  pinMessage: 'contextKeeper.pinMessage',
  importTranscript: 'contextKeeper.importTranscript',
  exportTranscript: 'contextKeeper.exportTranscript',
  showLog: 'contextKeeper.showLog',
  /** VS Code's own "Focus on Context View", generated for the sidebar view (not registered here). */
  focusSidebar: 'contextKeeper.sidebar.focus',
  applyPreview: 'contextKeeper.applyPreview',
  discardPreview: 'contextKeeper.discardPreview',
  pickEndpoint: 'contextKeeper.pickEndpoint',
  testConnection: 'contextKeeper.testConnection',
  newSession: 'contextKeeper.newSession',
  switchSession: 'contextKeeper.switchSession',
  renameSession: 'contextKeeper.renameSession',
  deleteSession: 'contextKeeper.deleteSession',
  continueInNewTask: 'contextKeeper.continueInNewTask',
  /** Sends the task that failed again (the sidebar's and the notification's Retry). */
  retryTask: 'contextKeeper.retryTask',
  /** The followed agent session compacted into a handoff document. */
  agentHandoff: 'contextKeeper.agentSessions.handoff',
  /** VS Code's own "Focus on Watched Agent View", generated for that view. */
  focusAgentGauge: 'contextKeeper.agentGauge.focus',
  /** Internal: the sidebar's approval buttons. Hidden from the palette. */
  answerApproval: 'contextKeeper.answerApproval',
} as const;
