// The catch-all inbox (API.md "Capture of any recipient"): mail to an address no inbox has lands
// there. A flag beside `type` rather than a third type value: the type column's CHECK would need a
// table rebuild, and the repository reports such an inbox as type "catch_all". One per instance.
export default /* sql */ `
ALTER TABLE inboxes ADD COLUMN catch_all INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX inboxes_catch_all ON inboxes(catch_all) WHERE catch_all = 1;
`;
