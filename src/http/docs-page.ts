// /docs: a self-contained API reference rendered from /openapi.json (no CDN: works air-gapped).
export function docsPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>inboxd API</title>
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem;color:#1b1b1f;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6e6e6;background:#111}code,pre{background:#1d1d22!important}}
h1{font-size:1.4rem}details{border-bottom:1px solid #8884;padding:.4rem 0}summary{cursor:pointer}
.m{display:inline-block;width:4.5rem;font-weight:600;font-family:monospace}.GET{color:#0a7}.POST{color:#27c}.PATCH{color:#c80}.PUT{color:#a5c}.DELETE{color:#d33}
pre{background:#f4f4f6;padding:.6rem;overflow:auto;font-size:12px}code{font-family:ui-monospace,monospace}
</style></head><body><h1>inboxd HTTP API</h1>
<p>Machine-readable document: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3, generated from the route schemas).</p>
<div id="ops">Loading…</div>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  const root=document.getElementById('ops');root.textContent='';
  for(const [path,ops] of Object.entries(doc.paths||{})){
    for(const [method,op] of Object.entries(ops)){
      const d=document.createElement('details');const s=document.createElement('summary');
      const m=document.createElement('span');m.className='m '+method.toUpperCase();m.textContent=method.toUpperCase();
      const p=document.createElement('code');p.textContent=path;
      s.append(m,p,document.createTextNode(' '+(op.summary||'')));d.append(s);
      const pre=document.createElement('pre');pre.textContent=JSON.stringify({parameters:op.parameters,requestBody:op.requestBody,responses:op.responses},null,2);
      d.append(pre);root.append(d);
    }
  }
});
</script></body></html>`;
}
