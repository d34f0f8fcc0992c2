// The navigation of the dashboard and of the console.

export const MERCHANT_NAV = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/deposits', label: 'Deposits' },
  { href: '/dashboard/purchases', label: 'Purchases' },
  { href: '/dashboard/ledger', label: 'Ledger' },
  { href: '/dashboard/withdrawals', label: 'Withdrawals' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
  { href: '/dashboard/developers', label: 'API keys & access' },
  { href: '/dashboard/requests', label: 'API requests' },
  { href: '/dashboard/team', label: 'Team' },
  { href: '/dashboard/audit', label: 'Audit log' },
  { href: '/dashboard/account', label: 'Your account' },
];

export const CONSOLE_NAV = [
  { href: '/console', label: 'Merchants' },
  { href: '/console/find', label: 'Find a record' },
  { href: '/console/system', label: 'System' },
  { href: '/console/bots', label: 'Bots' },
  { href: '/console/reconciliation', label: 'Reconciliation' },
  { href: '/console/operators', label: 'Operators' },
  { href: '/console/audit', label: 'Audit log' },
  { href: '/dashboard/account', label: 'Your account' },
];

export interface Shell {
  nav: { href: string; label: string }[];
  merchantName?: string;
}
