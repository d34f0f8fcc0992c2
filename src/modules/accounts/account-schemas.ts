// Answers of the account admin API (what the document shows and Fastify serialises), and their
// examples for the OpenAPI document.
import { Type } from '@sinclair/typebox';
import { IsoDate, Nullable } from '../../http/schemas.js';

const Role = Type.String({ enum: ['owner', 'developer', 'viewer', 'operator'] });

export const InvitationSchema = Type.Object(
  {
    user_id: Type.Integer(),
    merchant_id: Nullable(Type.Integer({ description: 'null: an operator of the console' })),
    email: Type.String(),
    role: Role,
    url: Type.String({ description: 'the one-time link (shown once): it sets the password; PUBLIC_URL is its base' }),
    expires_at: IsoDate('the link works until then (7 days), once'),
  },
  { title: 'Invitation' },
);

export const DashboardUserSchema = Type.Object(
  {
    id: Type.Integer(),
    merchant_id: Nullable(Type.Integer()),
    email: Type.String(),
    role: Role,
    state: Type.String({ enum: ['invited', 'active', 'disabled'] }),
    totp_enabled: Type.Boolean({ description: 'an authenticator code is required at sign-in' }),
    created_at: IsoDate(),
  },
  { title: 'DashboardUser' },
);

export const AuditEntrySchema = Type.Object(
  {
    id: Type.Integer(),
    merchant_id: Nullable(Type.Integer()),
    user_id: Nullable(Type.Integer()),
    actor: Type.String({ description: 'the e-mail address of the user, admin-token, cli, or the address tried at a failed sign-in' }),
    action: Type.String({ description: 'e.g. user_invited, signed_in, sign_in_failed, api_key_rotated, withdrawal_requested' }),
    detail: Type.Object({}, { additionalProperties: true, description: 'what changed' }),
    ip: Nullable(Type.String()),
    at: IsoDate(),
  },
  { title: 'AuditEntry' },
);

const env = (message: string, data: unknown) => ({ success: true, message, data });
const AT = '2026-11-23T10:15:02.417Z';
export const examples = {
  inviteUserRequest: { email: 'owner@shop.example', role: 'owner' },
  inviteOperatorRequest: { email: 'ops@gateway.example' },
  invitationResponse: env('invitation created', {
    user_id: 3, merchant_id: 1, email: 'owner@shop.example', role: 'owner',
    url: 'https://gateway.example/dashboard/invite/inv_4pQ0c2pS9xY1mJ8rT6vW3zK5nB7hD2fG0aL4eR9uI1o', expires_at: '2026-11-30T10:15:02.417Z',
  }),
  operatorInvitationResponse: env('invitation created', {
    user_id: 1, merchant_id: null, email: 'ops@gateway.example', role: 'operator',
    url: 'https://gateway.example/dashboard/invite/inv_Zr8bQ1nV5cX2kM7wT4yP9sD3fH6jL0gA2eU8iO5tR1q', expires_at: '2026-11-30T10:15:02.417Z',
  }),
  usersResponse: env('users listed', [{ id: 3, merchant_id: 1, email: 'owner@shop.example', role: 'owner', state: 'active', totp_enabled: true, created_at: AT }]),
  auditResponse: env('audit entries listed', [
    { id: 41, merchant_id: 1, user_id: 3, actor: 'owner@shop.example', action: 'api_key_rotated', detail: { api_key_prefix: 'sk_Qm3xT9a' }, ip: '203.0.113.7', at: AT },
  ]),
};
