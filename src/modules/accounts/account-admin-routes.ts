// Operator API for accounts: invite merchant users and operators (the ADMIN_TOKEN bootstraps the
// first operator this way), list a merchant's users, read the audit log.
import { Type } from '@sinclair/typebox';
import type { TypedPlugin } from '../../http/typed-routes.js';
import { adminSecurity, envelopeOf, IdParam, StringEnum, WithDefaults } from '../../http/schemas.js';
import { AuditEntrySchema, DashboardUserSchema, InvitationSchema } from './account-schemas.js';
import { ok } from '../../http/envelope.js';
import type { AccountsService, Actor } from './accounts-service.js';
import type { MerchantService } from '../merchants/merchant-service.js';
import { clientIp } from '../../http/client-ip.js';

const InviteUser = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254 }), role: StringEnum(['owner', 'developer', 'viewer'] as const) },
  { title: 'InviteUserRequest' },
);
const InviteOperator = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }, { title: 'InviteOperatorRequest' });
const AuditQuery = WithDefaults(
  Type.Object(
    {
      merchant_id: Type.Optional(Type.Integer({ minimum: 1 })),
      before: Type.Optional(Type.Integer({ minimum: 1 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    },
    { title: 'ListAuditQuery' },
  ),
  'limit',
);

export function userView(u: { id: number; merchant_id: number | null; email: string; role: string; password_hash: string | null; totp_enabled: boolean; disabled: boolean; created_at: Date | string }) {
  return {
    id: u.id,
    merchant_id: u.merchant_id,
    email: u.email,
    role: u.role,
    state: u.disabled ? 'disabled' : u.password_hash ? 'active' : 'invited',
    totp_enabled: u.totp_enabled,
    created_at: new Date(u.created_at).toISOString(),
  };
}

export const accountAdminRoutes = (ctx: { merchants: MerchantService; accounts: AccountsService }): TypedPlugin => async (app) => {
  const { accounts } = ctx;
  const common = { tags: ['admin', 'accounts'], security: adminSecurity };
  const invitation = { 201: envelopeOf(InvitationSchema) };
  const by = (ip: string): Actor => ({ userId: null, actor: 'admin-token', ip });

  app.post('/merchants/:id/invitations', { schema: { ...common, summary: 'Invite an e-mail address to a merchant: answers the one-time link (shown once)', params: IdParam, body: InviteUser, response: invitation } }, async (req, reply) => {
    const inv = await accounts.invite({ merchantId: req.params.id, email: req.body.email, role: req.body.role }, by(clientIp(req)));
    return reply.code(201).send(ok(inv, 'invitation created'));
  });

  app.post('/operators/invitations', { schema: { ...common, summary: 'Invite an operator (console): answers the one-time link (shown once)', body: InviteOperator, response: invitation } }, async (req, reply) => {
    const inv = await accounts.invite({ merchantId: null, email: req.body.email, role: 'operator' }, by(clientIp(req)));
    return reply.code(201).send(ok(inv, 'invitation created'));
  });

  app.get('/merchants/:id/users', { schema: { ...common, summary: "A merchant's dashboard users", params: IdParam, response: { 200: envelopeOf(Type.Array(DashboardUserSchema)) } } }, async (req) => {
    await ctx.merchants.get(req.params.id); // 404 for an unknown merchant
    return ok((await accounts.listUsers(req.params.id)).map(userView), 'users listed');
  });

  app.get('/audit', { schema: { ...common, summary: 'Audit log, newest first (keyset: before = the last id seen)', querystring: AuditQuery, response: { 200: envelopeOf(Type.Array(AuditEntrySchema)) } } }, async (req) => {
    const q = req.query;
    const rows = await accounts.listAudit({ merchantId: q.merchant_id, before: q.before, limit: q.limit });
    return ok(rows.map((a) => ({ ...a, at: new Date(a.at).toISOString() })), 'audit entries listed');
  });
};
