// TypeBox schemas of the hosted page's public JSON endpoints (authenticated by the hosted token).
import { Type, type Static } from '@sinclair/typebox';
import { GameEnum, Partner, Token } from '../../http/schemas.js';

export const HostedTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { title: 'Params' });

export const AssetParams = Type.Object({ file: Type.String({ minLength: 1, maxLength: 100 }) }, { title: 'Params' });

export const HostedInventoryRequest = Type.Object(
  {
    partner: Type.Optional(Partner),
    token: Type.Optional(Token),
    game: Type.Optional(GameEnum),
  },
  { title: 'HostedInventoryRequest' },
);
export type HostedInventoryBody = Static<typeof HostedInventoryRequest>;

export const HostedDepositRequest = Type.Object(
  {
    asset_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 1000 }),
    partner: Type.Optional(Partner),
    token: Type.Optional(Token),
    game: Type.Optional(GameEnum),
  },
  { title: 'HostedDepositRequest' },
);
export type HostedDepositBody = Static<typeof HostedDepositRequest>;
