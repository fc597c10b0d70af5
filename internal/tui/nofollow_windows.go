package tui

// noFollow is 0 on Windows: O_EXCL alone refuses an existing link there.
const noFollow = 0
