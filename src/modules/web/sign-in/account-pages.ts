// Sign-in, invitation (set password), sign-out, and the account page (authenticator, sessions):
// the same pages for merchant users and operators.
import type { FastifyInstance } from 'fastify';
import { httpStatusOf, validationError } from '../../../http/errors.js';
import { html, page, csrfField, doneFlash, table, when, actionButton, type Html } from '../kit/html.js';
import { PASSWORD_MIN } from '../../accounts/passwords.js';
import { SESSION_TTL_SECONDS, isSignInRefusal, type AccountsService, type SessionUser } from '../../accounts/accounts-service.js';
import {
  actorOf, checkCsrf, checkPreCsrf, preToken, requireRole, setCookie, SESSION_COOKIE,
} from './web-session.js';
import type { WebDeps } from '../deps.js';
import { clientIp } from '../../../http/client-ip.js';
import { fieldOf, stringFields } from '../../../http/typed-routes.js';

export const homeOf = (u: { role: string }) => (u.role === 'operator' ? '/console' : '/dashboard');

/** A local path to go back to after sign-in (never another site). */
function safeNext(next: unknown): string | undefined {
  return typeof next === 'string' && /^\/(dashboard|console)(\/[\w\-/.?=&%]*)?$/.test(next) ? next : undefined;
}

export function signInForm(csrf: string, next?: string, email = ''): Html {
  return html`<form method="post" action="/dashboard/sign-in" class="card narrow">
${csrfField(csrf)}${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">Authentication code <span class="hint">(if you set up an authenticator)</span></label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6">
<button type="submit" id="sign-in">Sign in</button>
<p><a href="/dashboard/forgot" id="forgot-link">Forgot your password?</a></p>
</form>`;
}

const FORGOT_SENT = 'If an account has this address, a link to choose a new password is on its way to it. It works once, for 24 hours. Nothing arrived after a few minutes? Check the spam folder, or ask an owner of your team.';
const FORGOT_NO_MAIL = html`<p id="forgot-no-mail">This gateway sends no e-mail. Ask an owner of your team (operators: another operator) for a password reset link: it works once, for 24 hours.</p>
<p><a href="/dashboard/sign-in">Back to sign-in</a></p>`;

function forgotForm(csrf: string, email = ''): Html {
  return html`<p>Enter the address of your account: we e-mail it a link to choose a new password.</p>
<form method="post" action="/dashboard/forgot" class="card narrow">${csrfField(csrf)}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${email}">
<button type="submit" id="send-reset">Send me a link</button>
<p><a href="/dashboard/sign-in">Back to sign-in</a></p>
</form>`;
}

export function accountPages(app: FastifyInstance, ctx: WebDeps, accounts: AccountsService, shell: (u: SessionUser) => Promise<{ nav: { href: string; label: string }[]; merchantName?: string }>): void {
  const publicUrl = ctx.config.publicUrl;

  app.get('/dashboard/sign-in', async (req, reply) => {
    if (req.user) return reply.redirect(homeOf(req.user), 303);
    const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
    const next = safeNext(fieldOf(req.query, 'next'));
    return reply.type('text/html').send(page({ title: 'Sign in', flash: doneFlash(req.query) }, signInForm(csrf, next)));
  });

  app.post('/dashboard/sign-in', async (req, reply) => {
    checkPreCsrf(req, await accounts.preSignInKey());
    const f = req.form;
    try {
      const r = await accounts.signIn({ email: f.email ?? '', password: f.password ?? '', code: f.code, ip: clientIp(req), userAgent: req.headers['user-agent'] ?? null });
      // A new session id on every sign-in: a cookie planted before sign-in never becomes a session.
      setCookie(reply, req, publicUrl, SESSION_COOKIE, r.cookie, SESSION_TTL_SECONDS);
      return reply.redirect(safeNext(f.next) ?? homeOf(r.user), 303);
    } catch (err) {
      if (!isSignInRefusal(err)) throw err;
      reply.headers(err.headers ?? {});
      const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
      return reply
        .code(httpStatusOf(err))
        .type('text/html')
        .send(page({ title: 'Sign in', flash: { kind: 'error', text: err.message } }, signInForm(csrf, safeNext(f.next), f.email ?? '')));
    }
  });

  // "Forgot your password?": the same answer whatever the address (the mail job resolves it).
  app.get('/dashboard/forgot', async (req, reply) => {
    if (!ctx.config.smtp) return reply.type('text/html').send(page({ title: 'Forgot your password?' }, FORGOT_NO_MAIL));
    const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
    return reply.type('text/html').send(page({ title: 'Forgot your password?' }, forgotForm(csrf)));
  });

  app.post('/dashboard/forgot', async (req, reply) => {
    checkPreCsrf(req, await accounts.preSignInKey());
    const email = req.form.email ?? '';
    try {
      if (!(await accounts.requestPasswordReset({ email, ip: clientIp(req) }))) return reply.type('text/html').send(page({ title: 'Forgot your password?' }, FORGOT_NO_MAIL));
    } catch (err) {
      if (!isSignInRefusal(err)) throw err;
      reply.headers(err.headers ?? {});
      const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
      return reply.code(httpStatusOf(err)).type('text/html').send(page({ title: 'Forgot your password?', flash: { kind: 'error', text: err.message } }, forgotForm(csrf, email)));
    }
    const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
    return reply.type('text/html').send(page({ title: 'Sign in', flash: { kind: 'ok', text: FORGOT_SENT } }, signInForm(csrf)));
  });

  app.get('/dashboard/invite/:token', async (req, reply) => {
    const { token = '' } = stringFields(req.params);
    const inv = await accounts.invitation(token);
    const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
    return reply.type('text/html').send(
      page(
        { title: 'Set your password' },
        html`<p>You were invited as <strong>${inv.role}</strong> with the address <strong>${inv.email}</strong>. Choose a password to activate the account.</p>
<form method="post" action="/dashboard/invite/${token}" class="card narrow">${csrfField(csrf)}
<input type="hidden" name="username" autocomplete="username" value="${inv.email}">
<label for="password">New password <span class="hint">(at least ${PASSWORD_MIN} characters)</span></label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required>
<label for="password2">Repeat the password</label>
<input id="password2" name="password2" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required>
<button type="submit" id="set-password">Set password</button>
</form>`,
      ),
    );
  });

  app.post('/dashboard/invite/:token', async (req, reply) => {
    checkPreCsrf(req, await accounts.preSignInKey());
    const { token = '' } = stringFields(req.params);
    if ((req.form.password ?? '') !== (req.form.password2 ?? '')) {
      throw validationError([{ field: 'password2', code: 'same', message: 'the two passwords differ' }]);
    }
    const r = await accounts.acceptInvitation(token, req.form.password ?? '', clientIp(req));
    const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
    return reply.type('text/html').send(page({ title: 'Sign in', flash: { kind: 'ok', text: 'Your password is set. Sign in to continue.' } }, signInForm(csrf, undefined, r.email)));
  });

  app.get('/dashboard/reset/:token', async (req, reply) => {
    const { token = '' } = stringFields(req.params);
    const r = await accounts.passwordReset(token);
    const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
    return reply.type('text/html').send(
      page(
        { title: 'Choose a new password' },
        html`<p>Choose a new password for <strong>${r.email}</strong>. The link works once; every signed-in session of the account ends. An authenticator, if set up, is still asked for at sign-in.</p>
<form method="post" action="/dashboard/reset/${token}" class="card narrow">${csrfField(csrf)}
<input type="hidden" name="username" autocomplete="username" value="${r.email}">
<label for="password">New password <span class="hint">(at least ${PASSWORD_MIN} characters)</span></label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required>
<label for="password2">Repeat the password</label>
<input id="password2" name="password2" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required>
<button type="submit" id="set-password">Set the new password</button>
</form>`,
      ),
    );
  });

  app.post('/dashboard/reset/:token', async (req, reply) => {
    checkPreCsrf(req, await accounts.preSignInKey());
    const { token = '' } = stringFields(req.params);
    if ((req.form.password ?? '') !== (req.form.password2 ?? '')) {
      throw validationError([{ field: 'password2', code: 'same', message: 'the two passwords differ' }]);
    }
    const r = await accounts.completePasswordReset(token, req.form.password ?? '', clientIp(req));
    const csrf = preToken(req, reply, publicUrl, await accounts.preSignInKey());
    return reply.type('text/html').send(page({ title: 'Sign in', flash: { kind: 'ok', text: 'Your new password is set. Sign in to continue.' } }, signInForm(csrf, undefined, r.email)));
  });

  app.post('/dashboard/sign-out', async (req, reply) => {
    if (req.user) {
      checkCsrf(req);
      await accounts.signOut(req.user, actorOf(req));
    }
    setCookie(reply, req, publicUrl, SESSION_COOKIE, '', 0);
    return reply.redirect('/dashboard/sign-in?done=signed_out', 303);
  });

  app.post('/dashboard/account/sign-out-everywhere', async (req, reply) => {
    requireRole(req, ['owner', 'developer', 'viewer', 'operator']);
    checkCsrf(req);
    await accounts.signOutEverywhere(req.user!, actorOf(req));
    setCookie(reply, req, publicUrl, SESSION_COOKIE, '', 0);
    return reply.redirect('/dashboard/sign-in?done=signed_out_everywhere', 303);
  });

  async function accountPage(u: SessionUser, extra?: Html, flash?: { kind: 'ok' | 'error'; text: string }) {
    const sessions = await accounts.listSessions(u.id);
    const s = await shell(u);
    return page(
      { title: 'Your account', nav: s.nav, current: '/dashboard/account', user: { ...u, merchantName: s.merchantName }, flash, home: homeOf(u) },
      html`${extra ?? ''}
<section><h2>Two-step sign-in</h2>
${u.totp_required && !u.totp_enabled ? html`<p class="flash flash-error" role="alert" id="totp-required">${u.role === 'operator' ? 'Operators sign in with an authenticator.' : 'Your team requires an authenticator at sign-in.'} Set one up to continue.</p>` : ''}
${u.totp_enabled && u.totp_required
  ? html`<p>An authenticator app is required at sign-in${u.role === 'operator' ? ' (always, for operators)' : ' (your team requires it)'}.</p>`
  : u.totp_enabled
  ? html`<p>An authenticator app is required at sign-in.</p>
<form method="post" action="/dashboard/account/totp/disable" class="card narrow">${csrfField(u.csrf)}
<label for="tp">Your password</label><input id="tp" name="password" type="password" autocomplete="current-password" required>
<label for="tc">Code from the authenticator</label><input id="tc" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<button type="submit" class="danger">Turn off the authenticator</button></form>`
  : html`<p>Protect the account with a code from an authenticator app (TOTP, RFC 6238).</p>${actionButton('/dashboard/account/totp/start', 'Set up an authenticator', u.csrf)}`}
</section>
<section><h2>Signed-in sessions</h2>
${table('Active sessions', ['Started', 'Last seen', 'Address', 'Browser'], sessions.map((x) => [when(x.created_at), when(x.last_seen_at), x.ip, (x.user_agent ?? '').slice(0, 60)]))}
${actionButton('/dashboard/account/sign-out-everywhere', 'Sign out everywhere', u.csrf, { danger: true })}
</section>`,
    );
  }

  app.get('/dashboard/account', async (req, reply) => {
    const u = requireRole(req, ['owner', 'developer', 'viewer', 'operator']);
    return reply.type('text/html').send(await accountPage(u));
  });

  app.post('/dashboard/account/totp/start', async (req, reply) => {
    const u = requireRole(req, ['owner', 'developer', 'viewer', 'operator']);
    checkCsrf(req);
    const t = await accounts.startTotp(u);
    const form = html`<section class="card"><h2>Set up an authenticator</h2>
<p>Add this key to your authenticator app (or open the otpauth link on the phone), then enter the 6-digit code it shows.</p>
<p>Key: <code id="totp-secret">${t.secret}</code></p>
<p class="break"><a href="${t.uri}">${t.uri}</a></p>
<form method="post" action="/dashboard/account/totp/confirm">${csrfField(u.csrf)}
<label for="totp-code">Code from the app</label><input id="totp-code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required>
<button type="submit" id="totp-confirm">Turn on</button></form></section>`;
    return reply.type('text/html').send(await accountPage(u, form));
  });

  app.post('/dashboard/account/totp/confirm', async (req, reply) => {
    const u = requireRole(req, ['owner', 'developer', 'viewer', 'operator']);
    checkCsrf(req);
    await accounts.confirmTotp(u, req.form.code ?? '', actorOf(req));
    return reply.type('text/html').send(await accountPage({ ...u, totp_enabled: true }, undefined, { kind: 'ok', text: 'The authenticator is on: sign-in now asks for its code.' }));
  });

  app.post('/dashboard/account/totp/disable', async (req, reply) => {
    const u = requireRole(req, ['owner', 'developer', 'viewer', 'operator']);
    checkCsrf(req);
    await accounts.disableTotp(u, { password: req.form.password ?? '', code: req.form.code ?? '' }, actorOf(req));
    return reply.type('text/html').send(await accountPage({ ...u, totp_enabled: false }, undefined, { kind: 'ok', text: 'The authenticator is off.' }));
  });
}
