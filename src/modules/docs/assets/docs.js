// Opens the navigation on wide screens; on a phone it stays a "Menu" the reader opens.
const menu = document.getElementById('menu');
const wide = window.matchMedia('(min-width: 900px)');
const sync = () => { if (menu) menu.open = wide.matches; };
sync();
wide.addEventListener('change', sync);
