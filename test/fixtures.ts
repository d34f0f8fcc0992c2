// Expected behaviour shared by several test files, written out here (not derived from the code
// under test): the sandbox's magic partners and the code and field each must produce (DESIGN 6, spec 7.3).

/** [partner, domain code, field] for every magic partner that refuses the user. */
export const MAGIC_USER_ERRORS: ReadonlyArray<[number, string, 'partner' | 'token' | 'game']> = [
  [90000001, 'trade_link_invalid', 'partner'],
  [90000002, 'trade_link_revoked', 'token'],
  [90000003, 'trade_banned', 'partner'],
  [90000004, 'profile_private', 'partner'],
  [90000005, 'limited_account', 'partner'],
  [90000006, 'hold', 'partner'],
  [90000007, 'permissions', 'game'],
  [90000008, 'hold_and_permissions', 'partner'],
];
