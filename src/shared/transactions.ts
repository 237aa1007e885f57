/** Who started a write transaction (spec section 2.6). */
export const ORIGINATORS = ['User', 'Internal', 'Replication'] as const;
export type Originator = (typeof ORIGINATORS)[number];
