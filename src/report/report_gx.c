/* The report's GPU explorer (report_html.c): every GPU of the census in
 * one compact JSON block inside the page, and a few lines of vanilla JS
 * that show it as a table a page at a time (filter by name, SKU, verdict
 * or status; sort by any column) and open one GPU on demand: its values
 * against its SKU's distribution (median, p5..p95, its rank), its
 * verdict's reasons, its latency curve where its node file was read, a
 * link to its node's section where one is drawn. Nothing per GPU is in the
 * DOM until asked for, so a page of 16,384 GPUs stays light.
 *
 * Strings go into the JSON escaped for JSON and for a <script> element
 * (< > & as \u003c \u003e \u0026, so no text can close it), and the JS
 * puts them into the page as text (textContent), never as markup.
 *
 * Called by the page; it reads only the model (report_data.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

static const struct {
    const char *key, *head;
    size_t off;
    double scale;
} COLS[] = {
    { "l1", "L1 cy", offsetof(rp_gpu, l1), 1 },
    { "l2", "L2 cy", offsetof(rp_gpu, l2), 1 },
    { "dram", "DRAM cy", offsetof(rp_gpu, dram), 1 },
    { "hbm", "HBM GB/s", offsetof(rp_gpu, hbm_bps), 1e-9 },
    { "ratio", "% theo", offsetof(rp_gpu, hbm_ratio), 100 },
    { "l2bw", "L2 GB/s", offsetof(rp_gpu, l2_bw), 1e-9 },
    { "h2d", "H2D GB/s", offsetof(rp_gpu, h2d_bps), 1e-9 },
    { "h2dlat", "H2D lat us", offsetof(rp_gpu, h2d_alpha), 1e6 },
    { "d2h", "D2H GB/s", offsetof(rp_gpu, d2h_bps), 1e-9 },
    { "d2hlat", "D2H lat us", offsetof(rp_gpu, d2h_alpha), 1e6 },
    { "p2p", "P2P min GB/s", offsetof(rp_gpu, p2p_bps), 1e-9 },
    { "launch", "launch ns", offsetof(rp_gpu, launch_ns), 1 },
};
#define NCOLS (sizeof COLS / sizeof COLS[0])

/* A JSON string safe inside <script>: quotes, backslashes and control
 * characters escaped for JSON, < > & as \u escapes. */
void rh_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&' || ch == 0x7f)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* Four significant digits: the page shows at most four (fmt: integers
 * from 100, three digits below), and at 131,072 GPUs every digit more is
 * ~1.5 MB of page. */
static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.4g", v);
    else
        fputs("null", f);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void data(FILE *f, const rp_cat *c)
{
    /* SKUs in first-seen order; footprints of every chase curve drawn */
    const char **sku = malloc((c->ngpus ? c->ngpus : 1) * sizeof *sku);
    int *si = malloc((c->ngpus ? c->ngpus : 1) * sizeof *si);
    size_t nsku = 0, nfp = 0, npts = 0;
    for (size_t i = 0; i < c->ngpus; i++)
        npts += c->gpus[i].nchase;
    double *fp = malloc((npts ? npts : 1) * sizeof *fp);
    if (!sku || !si || !fp) {
        free(sku), free(si), free(fp);
        fputs("{\"g\":[]}", f);
        return;
    }
    for (size_t i = 0; i < c->ngpus; i++) {
        size_t k = 0;
        /* few SKUs in a census: a linear search over them */
        while (k < nsku && strcmp(sku[k], c->gpus[i].name))
            k++;
        if (k == nsku)
            sku[nsku++] = c->gpus[i].name;
        si[i] = (int)k;
        for (size_t j = 0; j < c->gpus[i].nchase; j++)
            fp[nfp++] = c->gpus[i].chase[j].x;
    }
    qsort(fp, nfp, sizeof *fp, cmp_d);
    size_t u = 0;
    for (size_t j = 0; j < nfp; j++)
        if (!u || fp[j] != fp[u - 1])
            fp[u++] = fp[j];
    nfp = u;

    fputs("{\"cols\":[", f);
    for (size_t k = 0; k < NCOLS; k++) {
        fputs(k ? "," : "", f);
        rh_json_str(f, COLS[k].head);
    }
    fputs("],\n\"nodes\":[", f);
    for (size_t k = 0; k < c->nnodes; k++) {
        fputs(k ? "," : "", f);
        rh_json_str(f, c->node_names[k]);
    }
    fputs("],\n\"drawn\":[", f);
    for (size_t k = 0; k < c->nnodes; k++)
        fprintf(f, "%s%d", k ? "," : "", c->full || c->node_read[k] ? 1 : 0);
    fputs("],\n\"skus\":[", f);
    for (size_t k = 0; k < nsku; k++) {
        fputs(k ? "," : "", f);
        rh_json_str(f, sku[k]);
    }
    fputs("],\n\"fp\":[", f);
    for (size_t k = 0; k < nfp; k++)
        fprintf(f, "%s%.0f", k ? "," : "", fp[k]);
    fputs("],\n\"g\":[", f);
#define ST_MAX 16
    const char *st[ST_MAX];
    size_t nst = 0;
    for (size_t i = 0; i < c->ngpus; i++) {
        const rp_gpu *g = &c->gpus[i];
        /* its status as an index into "st" (a few statuses, 131,072 GPUs) */
        size_t sti = 0;
        while (sti < nst && strcmp(st[sti], g->status))
            sti++;
        if (sti == nst && nst < ST_MAX)
            st[nst++] = g->status;
        fprintf(f, "%s\n[%zu,%d,%d,%d,", i ? "," : "", g->node_ix, g->index, si[i], g->verdict);
        if (sti < nst)
            fprintf(f, "%zu", sti);
        else
            rh_json_str(f, g->status);
        fputs(",[", f);
        for (size_t k = 0; k < NCOLS; k++) {
            fputs(k ? "," : "", f);
            jnum(f, *(const double *)((const char *)g + COLS[k].off) * COLS[k].scale);
        }
        fputc(']', f);
        /* a GPU with no curve, reasons or status reason ends here (the
         * script reads the missing members as none) */
        if (!g->nchase && !(g->v && g->v->nreasons) && !g->status_reason[0]) {
            fputc(']', f);
            continue;
        }
        fputc(',', f);
        if (g->nchase) {   /* p50 at each footprint of "fp", null where not measured */
            fputc('[', f);
            size_t j = 0;
            for (size_t k = 0; k < nfp; k++) {
                while (j < g->nchase && g->chase[j].x < fp[k])
                    j++;
                fputs(k ? "," : "", f);
                jnum(f, j < g->nchase && g->chase[j].x == fp[k] ? g->chase[j].p50 : NAN);
            }
            fputc(']', f);
        } else {
            fputc('0', f);
        }
        fputc(',', f);
        if (g->v && g->v->nreasons) {
            fputc('[', f);
            for (size_t k = 0; k < g->v->nreasons && k < 8; k++) {
                const gc_reason *r = &g->v->reasons[k];
                char t[1200];
                snprintf(t, sizeof t, "%s %s: %s: %s", rh_vname(r->severity), r->rule, r->metric,
                         r->detail);
                fputs(k ? "," : "", f);
                rh_json_str(f, t);
            }
            fputc(']', f);
        } else {
            fputc('0', f);
        }
        fputc(',', f);
        rh_json_str(f, g->status_reason);
        fputc(']', f);
    }
    fputs("],\n\"st\":[", f);
    for (size_t k = 0; k < nst; k++) {
        fputs(k ? "," : "", f);
        rh_json_str(f, st[k]);
    }
    fputs("]}", f);
    free(sku), free(si), free(fp);
}

static const char JS[] =
    "(function(){var el=document.getElementById('gx-data');if(!el)return;"
    "var D=JSON.parse(el.textContent),G=D.g,V=['ok','suspect','degraded','failed'],per=50,page=0,"
    "sk=-1,sd=1,rows=G,stats={};"
    /* each GPU's text to filter on, made once: a keystroke then costs one
     * indexOf per GPU, not a string built per GPU (131,072 of them) */
    "G.forEach(function(g,i){g.i=i;if(typeof g[4]==='number')g[4]=D.st[g[4]];g.s=(nm(g)+' '+D.skus[g[2]]+' '+vn(g)+' '+g[4]).toLowerCase();});"
    "var q=document.getElementById('gx-q'),vs=document.getElementById('gx-v'),"
    "body=document.getElementById('gx-body'),info=document.getElementById('gx-n'),"
    "det=document.getElementById('gx-detail');"
    "function nm(g){return D.nodes[g[0]]+'/gpu'+g[1];}"
    "function vn(g){return g[3]<0?'-':V[g[3]];}"
    "function fmt(x){return x===null||x===undefined?'-':Math.abs(x)>=100?x.toFixed(0):x.toPrecision(3);}"
    "function el2(t,txt,cls,p){var e=document.createElement(t);if(txt!==null)e.textContent=txt;"
    "if(cls)e.className=cls;if(p)p.appendChild(e);return e;}"
    "function kv(g,k){return k===-2?g[3]:k===-3?g.i:g[5][k];}"
    "function apply(){var s=q.value.toLowerCase(),w=vs.value;rows=G.filter(function(g){"
    "if(w==='nok'){if(g[3]<=0&&g[4]==='ok')return false;}else if(w&&vn(g)!==w)return false;"
    "return !s||g.s.indexOf(s)>=0;});"
    "if(sk!==-1)rows.sort(function(a,b){var x=kv(a,sk),y=kv(b,sk);if(x===null)return 1;"
    "if(y===null)return -1;return (x-y)*sd||a.i-b.i;});page=0;render();}"
    "function render(){body.textContent='';var n=rows.length,pages=Math.max(1,Math.ceil(n/per));"
    "if(page>=pages)page=pages-1;if(page<0)page=0;"
    "for(var i=page*per;i<Math.min(n,(page+1)*per);i++){var g=rows[i],tr=el2('tr',null,'gx',body);"
    "tr.dataset.i=g.i;el2('td',nm(g),'l',tr);el2('td',D.skus[g[2]],'l',tr);"
    "for(var k=0;k<D.cols.length;k++)el2('td',fmt(g[5][k]),null,tr);"
    "el2('td',vn(g)+(g[4]!=='ok'&&g[4]!==vn(g)?' ('+g[4]+')':''),'l v-'+vn(g),tr);}"
    "info.textContent=n+' of '+G.length+' GPUs, page '+(page+1)+' of '+pages;}"
    /* a SKU's sorted values, every column at once, the first time one of its GPUs is opened */
    "function st(s,k){var key=s+':'+k;if(!stats[key]){var n=D.cols.length,vs=[],c;for(c=0;c<n;c++)vs.push([]);"
    "G.forEach(function(g){if(g[2]===s)for(var c=0;c<n;c++)if(g[5][c]!==null)vs[c].push(g[5][c]);});"
    "for(c=0;c<n;c++)stats[s+':'+c]=Float64Array.from(vs[c]).sort();}"
    "return stats[key];}"
    "function qt(v,p){return v.length?v[Math.min(v.length-1,Math.floor(p*(v.length-1)+0.5))]:null;}"
    "function curve(g,p){var ns='http://www.w3.org/2000/svg',W=420,H=200,L=48,B=28,xs=[],ys=[];"
    "g[6].forEach(function(y,k){if(y!==null){xs.push(Math.log(D.fp[k]));ys.push(y);}});if(xs.length<2)return;"
    "var x0=Math.min.apply(null,xs),x1=Math.max.apply(null,xs),y1=Math.max.apply(null,ys)*1.05,"
    "s=document.createElementNS(ns,'svg');s.setAttribute('class','plot gxlat');s.setAttribute('width',W);"
    "s.setAttribute('height',H);var pl=document.createElementNS(ns,'polyline');pl.setAttribute('class','med');"
    "pl.setAttribute('points',xs.map(function(x,i){return (L+(x-x0)/(x1-x0||1)*(W-L-10)).toFixed(1)+','+"
    "(H-B-ys[i]/y1*(H-B-20)).toFixed(1);}).join(' '));s.appendChild(pl);"
    "function tx(x,y,t,a){var e=document.createElementNS(ns,'text');e.setAttribute('x',x);e.setAttribute('y',y);"
    "e.setAttribute('class','tick');if(a)e.setAttribute('text-anchor',a);e.textContent=t;s.appendChild(e);}"
    "tx(8,14,'latency (cycles) against footprint, log');tx(L-4,H-B,'0','end');tx(L-4,24,fmt(y1),'end');"
    "function by(b){return b>=1<<30?(b/(1<<30)).toFixed(0)+' GiB':b>=1<<20?(b/(1<<20)).toFixed(0)+' MiB':(b/1024).toFixed(0)+' KiB';}"
    "tx(L,H-8,by(Math.exp(x0)));tx(W-10,H-8,by(Math.exp(x1)),'end');p.appendChild(s);}"
    "function show(g){det.textContent='';var h=el2('h3',nm(g)+': '+D.skus[g[2]]+', ',null,det);"
    "el2('span',vn(g),'v-'+vn(g),h);if(g[4]!=='ok')el2('p','status '+g[4]+': '+g[8],'note',det);"
    "if(g[7]){var ul=el2('ul',null,'reasons',det);g[7].forEach(function(r){el2('li',r,null,ul);});}"
    "var t=el2('table',null,'gxd',det),tr=el2('tr',null,null,t);"
    "['','this GPU','SKU median','SKU p5 .. p95','rank in SKU'].forEach(function(x){el2('th',x,null,tr);});"
    "D.cols.forEach(function(c,k){var v=st(g[2],k),x=g[5][k],r=el2('tr',null,null,t);el2('td',c,'l',r);"
    "el2('td',fmt(x),null,r);el2('td',fmt(qt(v,0.5)),null,r);el2('td',fmt(qt(v,0.05))+' .. '+fmt(qt(v,0.95)),null,r);"
    "var lo=0;if(x!==null){var a=0,b=v.length;while(a<b){var m=(a+b)>>1;if(v[m]<x)a=m+1;else b=m;}lo=a;}"
    "var out=x!==null&&(x<qt(v,0.05)||x>qt(v,0.95));el2('td',x===null?'-':(lo+1)+' of '+v.length,out?'v-suspect':null,r);});"
    "if(g[6])curve(g,det);else el2('p','Latency curve: its node file was not read for this page '"
    "+'(gpucensus report OUT -o PAGE --node '+D.nodes[g[0]]+').','note',det);"
    "if(D.drawn[g[0]]){var a=el2('a','its node, drawn in full',null,el2('p',null,null,det));"
    "a.href='#node-'+D.nodes[g[0]].replace(/[^A-Za-z0-9_-]/g,'_');}}"
    "q.addEventListener('input',apply);vs.addEventListener('change',apply);"
    "document.getElementById('gx-prev').addEventListener('click',function(){page--;render();});"
    "document.getElementById('gx-next').addEventListener('click',function(){page++;render();});"
    "body.addEventListener('click',function(e){var tr=e.target.closest('tr');if(tr)show(G[+tr.dataset.i]);});"
    "document.querySelectorAll('th[data-k]').forEach(function(th){th.addEventListener('click',function(){"
    "var k=+th.dataset.k;sd=sk===k?-sd:1;sk=k;apply();});});"
    "window.gxShow=function(i){show(G[i]);};render();"
    /* every SKU's sorted values at load, so that opening a GPU sorts nothing */
    "D.skus.forEach(function(x,k){st(k,0);});})();";

void rh_explorer(FILE *f, const rp_cat *c)
{
    fputs("<p><input id=gx-q placeholder=\"filter GPUs: node, gpu, SKU, verdict, status\"> "
          "<select id=gx-v><option value=\"\">any verdict</option><option value=nok>not ok</option>"
          "<option>ok</option><option>suspect</option><option>degraded</option><option>failed</option>"
          "</select> <button id=gx-prev>&lt; previous</button> <button id=gx-next>next &gt;</button> "
          "<span id=gx-n class=note></span></p>\n"
          /* its own box (CSS containment): a new page of rows lays out the box, not the page */
          "<div class=gxwrap><table class=gxt><thead><tr>"
          "<th class=l data-k=-3>GPU</th><th class=l>SKU</th>", f);
    for (size_t k = 0; k < NCOLS; k++)
        fprintf(f, "<th data-k=%zu>%s</th>", k, COLS[k].head);
    fputs("<th class=l data-k=-2>verdict</th></tr></thead><tbody id=gx-body></tbody></table></div>\n"
          "<p class=note>Click a column to sort, a GPU to open it.</p><div id=gx-detail></div>\n"
          "<script type=\"application/json\" id=gx-data>", f);
    data(f, c);
    fprintf(f, "</script>\n<script>%s</script>\n", JS);
}
