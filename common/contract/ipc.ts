// The Electron IPC channels between the preload and main, named once: a channel renamed on one side only
// would leave every call unanswered, with nothing to say why.

/** Renderer → main: one call of the contract (`invoke(method, payload)`, answered with a `Wire` result). */
export const IPC_CALL = 'quadscope:call';
/** Main → renderer: engine events (import progress, live status). */
export const IPC_EVENT = 'quadscope:event';
