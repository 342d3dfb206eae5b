// Its own module so that the entry point can recognise a command's failure without loading the
// services (cli/offline.ts imports them all: `inboxd --help` then took 1.2 s instead of 0.2 s).

/** A failure of a command the user can fix: one line, exit 1. */
export class CliFailure extends Error {}
