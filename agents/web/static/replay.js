// A replay: step through a recorded game from any player's view or everybody's.
"use strict";

const NAME = decodeURIComponent(location.pathname.split("/")[2]);
const slider = document.getElementById("step");
const viewer = document.getElementById("viewer");
let steps = 0;

async function show(step) {
  const q = "?step=" + step + "&viewer=" + encodeURIComponent(viewer.value);
  const r = await fetch("/api/replays/" + encodeURIComponent(NAME) + q);
  const data = await r.json();
  if (!r.ok) { document.getElementById("error").textContent = data.error; return; }
  steps = data.steps;
  slider.max = steps;
  slider.value = step;
  document.getElementById("step-label").textContent = "step " + step + " / " + steps;
  if (viewer.options.length === 1) {
    for (let p = 0; p < data.num_players; p++) {
      const o = document.createElement("option");
      o.value = p; o.textContent = "player " + p;
      viewer.appendChild(o);
    }
  }
  document.body.dataset.step = step;
  renderTable(document.getElementById("table"), data, {});
}

const current = () => Number(slider.value);
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(Math.max(0, current() - 1));
document.getElementById("next").onclick = () => show(Math.min(steps, current() + 1));
document.getElementById("last").onclick = () => show(steps);
slider.oninput = () => show(current());
viewer.onchange = () => show(current());
show(0);
