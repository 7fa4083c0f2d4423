// The lobby: create a game (choose the seats played by people) and list replays.
"use strict";

function seatBoxes() {
  const n = Number(document.getElementById("players").value);
  const box = document.getElementById("humans");
  const checked = new Set([...box.querySelectorAll("input:checked")].map((i) => Number(i.value)));
  if (!checked.size) checked.add(0);
  box.querySelectorAll("label").forEach((l) => l.remove());
  for (let p = 0; p < n; p++) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.value = p;
    input.name = "human";
    input.checked = checked.has(p);
    label.appendChild(input);
    label.appendChild(document.createTextNode(" player " + p));
    box.appendChild(label);
  }
}

async function create(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = {
    players: Number(form.get("players")),
    difficulty: form.get("difficulty"),
    card_sets: form.get("card_sets"),
    group_decision: form.get("group_decision"),
    challenge_mode: form.get("challenge_mode") === "on",
    teammates: form.get("teammates"),
    humans: form.getAll("human").map(Number),
  };
  if (form.get("seed") !== "") body.seed = Number(form.get("seed"));
  const error = document.getElementById("error");
  const links = document.getElementById("links");
  error.textContent = "";
  links.textContent = "";
  const r = await fetch("/api/games", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const data = await r.json();
  if (!r.ok) { error.textContent = data.error; return; }
  links.appendChild(document.createTextNode("Secret links (one per seat; share each with its player only):"));
  const ul = document.createElement("ul");
  for (const [seat, link] of Object.entries(data.links)) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = link;
    a.textContent = "player " + seat;
    a.className = "seat-link";
    a.dataset.seat = seat;
    a.target = "_blank";
    li.appendChild(a);
    // The whole link in a one-line field: it never wraps inside its key, and it can be
    // selected at once and copied.
    const field = document.createElement("input");
    field.type = "text";
    field.readOnly = true;
    field.className = "link-field";
    field.value = location.origin + link;
    field.setAttribute("aria-label", "secret link of player " + seat);
    field.addEventListener("focus", () => field.select());
    li.appendChild(field);
    ul.appendChild(li);
  }
  links.appendChild(ul);
}

async function replays() {
  const r = await fetch("/api/replays");
  const names = await r.json();
  if (!names.length) return;
  const ul = document.getElementById("replays");
  ul.textContent = "";
  for (const name of names) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/replay/" + encodeURIComponent(name);
    a.textContent = name;
    li.appendChild(a);
    ul.appendChild(li);
  }
}

async function teams() {
  // The teams this server can create (GET /api/teams); the page's own list stays when
  // the server does not say.
  const r = await fetch("/api/teams").catch(() => null);
  if (!r || !r.ok) return;
  const specs = await r.json().catch(() => null);
  if (!Array.isArray(specs) || !specs.length) return;
  const list = document.getElementById("specs");
  list.textContent = "";
  for (const spec of specs) {
    const o = document.createElement("option");
    o.value = spec;
    list.appendChild(o);
  }
  const input = document.querySelector("input[name=teammates]");
  if (!specs.includes(input.value)) input.value = specs[0];
}

document.getElementById("players").addEventListener("change", seatBoxes);
document.getElementById("new-game").addEventListener("submit", create);
seatBoxes();
teams();
replays();
