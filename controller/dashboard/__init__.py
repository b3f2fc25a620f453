"""The dashboard page (index.html, dashboard.js, dashboard.css), package data served by
``controller.api``. Plain HTML, JavaScript and CSS with no external assets."""
