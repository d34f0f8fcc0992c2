// What every merchant page shares: the signed-in merchant user and the page shell around a body.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../../accounts/accounts-service.js';
import { requireRole } from '../sign-in/web-session.js';
import type { Role } from '../../accounts/accounts-types.js';
import { doneFlash, page, type Html } from './html.js';
import type { Shell } from './nav.js';

export type ShellOf = (u: SessionUser) => Promise<Shell>;
export type MerchantUser = SessionUser & { merchant_id: number };

export const READ: readonly Role[] = ['owner', 'developer', 'viewer'];
export const DEVELOP: readonly Role[] = ['owner', 'developer'];
export const OWNER: readonly Role[] = ['owner'];

/** A merchant user with one of the roles (operators use the console). */
export function merchantUser(req: FastifyRequest, roles: readonly Role[] = READ): MerchantUser {
  return requireRole(req, roles) as MerchantUser;
}

export interface ViewOptions {
  title: string;
  current: string;
  flash?: { kind: 'ok' | 'error'; text: string };
  scripts?: string[];
}

export async function respond(reply: FastifyReply, shell: ShellOf, u: SessionUser, opts: ViewOptions, body: Html): Promise<FastifyReply> {
  const s = await shell(u);
  return reply.type('text/html').send(page({ ...opts, flash: opts.flash ?? doneFlash(reply.request.query), nav: s.nav, user: { email: u.email, role: u.role, csrf: u.csrf, merchantName: s.merchantName } }, body));
}

/** Query-string integers: absent or malformed is undefined (the list starts at the newest). */
export function intParam(v: unknown): number | undefined {
  return typeof v === 'string' && /^\d{1,15}$/.test(v) && Number(v) > 0 ? Number(v) : undefined;
}
