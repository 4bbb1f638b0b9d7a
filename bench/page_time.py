#!/usr/bin/env python3
"""How responsive a report page is in headless Chromium (the target
"a page that stays responsive"): the page is copied with a small script
added that, at the load event, times a few things an operator does (type
a filter into the GPU explorer, clear it, sort a column, open a GPU, turn
a page, filter the nodes, open a node's section), each forced through
style and layout (reading offsetHeight), and writes the times into the
DOM, which `chromium --headless --dump-dom` prints.

usage: page_time.py PAGE.html
Prints key=value lines: page_load_ms (navigation start to the load
event), page_dom_elements, page_<action>_ms, page_worst_action_ms; or
page_skip=REASON when Chromium is not installed or cannot start (exit 0).
Exit 1 when the page's script fails (an action raised an error)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

PROBE = r"""<script>
window.addEventListener('load',function(){
var r={},t=performance.timing;r.load_ms=t.loadEventStart-t.navigationStart;
r.dom_elements=document.getElementsByTagName('*').length;r.errors=[];
function time(name,fn){var t0=performance.now();try{fn();}catch(e){r.errors.push(name+': '+e);}
var t1=performance.now();document.body.offsetHeight;r[name+'_ms']=performance.now()-t0;r[name+'_script_ms']=t1-t0;}
function input(id,v){var e=document.getElementById(id);e.value=v;e.dispatchEvent(new Event('input'));}
time('filter',function(){input('gx-q','gpu3');});
time('filter_clear',function(){input('gx-q','');});
time('sort',function(){document.querySelector('th[data-k="3"]').click();});
time('open_gpu',function(){document.querySelector('#gx-body tr').click();});
time('next_page',function(){document.getElementById('gx-next').click();});
time('node_filter',function(){input('filter','n1');});
time('open_node',function(){input('filter','');var d=document.querySelector('details.node');if(d)d.open=true;});
r.gpu_rows=document.querySelectorAll('#gx-body tr').length;
r.detail=document.getElementById('gx-detail').textContent.length;
var p=document.createElement('pre');p.id='gc-bench';p.textContent=JSON.stringify(r);document.body.appendChild(p);
});
</script>"""

ACTIONS = ["filter", "filter_clear", "sort", "open_gpu", "next_page", "node_filter", "open_node"]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    page = sys.argv[1]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("page_skip=chromium not installed (apt-get install chromium)")
        return 0
    with tempfile.TemporaryDirectory(prefix="gc-page-") as tmp:
        html = open(page, encoding="utf-8").read()
        at = html.rfind("</body>")
        if at < 0:
            print(f"page_time: {page}: no </body>", file=sys.stderr)
            return 1
        probe = os.path.join(tmp, "page.html")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(html[:at] + PROBE + html[at:])
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={tmp}/profile", "--dump-dom", "file://" + probe]
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            print("page_time: chromium did not finish in 600 s", file=sys.stderr)
            return 1
        wall = time.monotonic() - t0
        m = re.search(r'<pre id="gc-bench">(.*?)</pre>', p.stdout, re.S)
        if not m:
            if p.returncode != 0 and "gx-" not in p.stdout:
                print("page_skip=chromium cannot start here: " +
                      " ".join(p.stderr.strip().splitlines()[-2:]))
                return 0
            print(f"page_time: no measurement in the DOM (chromium exit {p.returncode})",
                  file=sys.stderr)
            return 1
        r = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    print(f"page_chromium_wall_s={wall:.2f}")
    print(f"page_load_ms={r['load_ms']:.0f}")
    print(f"page_dom_elements={r['dom_elements']}")
    worst = 0
    for a in ACTIONS:
        print(f"page_{a}_ms={r[a + '_ms']:.1f}")
        print(f"page_{a}_script_ms={r[a + '_script_ms']:.1f}")
        worst = max(worst, r[a + "_ms"])
    print(f"page_worst_action_ms={worst:.1f}")
    print(f"page_gpu_rows={r['gpu_rows']}")
    for e in r["errors"]:
        print(f"page_time: {e}", file=sys.stderr)
    return 1 if r["errors"] or not r["gpu_rows"] or not r["detail"] else 0


if __name__ == "__main__":
    sys.exit(main())
