// The mail capability's repositories: what its services keep, as typed records and small
// interfaces. Engines implement them in src/storage/<engine>/mail.ts.

export interface MailRepositories {}
