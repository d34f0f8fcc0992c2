// Progressive enhancement only: every page works without this file.
// 1. The overview's volume chart (uPlot, served from node_modules by the gateway).
// 2. A confirmation before forms marked data-confirm (key and secret rotation).
// 3. On a phone, the section menu behind a button (without this file it is a list that wraps).
'use strict';

function drawVolumeChart() {
  const el = document.getElementById('volume-chart');
  if (!el || typeof window.uPlot !== 'function') return;
  const data = JSON.parse(el.dataset.chart);
  const usd = (v) => (v == null ? '' : (v < 0 ? '-$' : '$') + Math.abs(v).toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 }));
  const width = () => Math.max(280, el.clientWidth - 16);
  const plot = new window.uPlot(
    {
      width: width(),
      height: 240,
      series: [
        {},
        { label: 'Deposits', stroke: '#1f4fd1', fill: 'rgba(31,79,209,0.12)', width: 2, value: (_u, v) => usd(v) },
        { label: 'Purchases', stroke: '#b3541e', width: 2, value: (_u, v) => usd(v) },
      ],
      axes: [{}, { values: (_u, ticks) => ticks.map((t) => '$' + t), size: 70 }],
      scales: { x: { time: true } },
    },
    [data.days, data.deposits, data.purchases],
    el,
  );
  el.dataset.ready = 'true';
  window.addEventListener('resize', () => plot.setSize({ width: width(), height: 240 }));
}

function confirmForms() {
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (e) => {
      if (!window.confirm(form.dataset.confirm)) e.preventDefault();
    });
  }
}

function phoneMenu() {
  const nav = document.getElementById('side-nav');
  const button = document.getElementById('menu-button');
  if (!nav || !button) return;
  document.documentElement.classList.add('js');
  button.addEventListener('click', () => {
    const open = nav.classList.toggle('open');
    button.setAttribute('aria-expanded', String(open));
  });
}

document.addEventListener('DOMContentLoaded', () => {
  phoneMenu();
  drawVolumeChart();
  confirmForms();
});
