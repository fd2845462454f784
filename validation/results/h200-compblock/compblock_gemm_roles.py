#!/usr/bin/env python3
"""Branch compblock: h200-compiled2's nine compiled decode steps, each layer's seven projection GEMMs
(nvjet + its splitKreduce, median over the layers, in trace order q, k, v, o, gate, up, down) against
`perfmodel ops --impl compiled` per projection (device time a call). Run with the opt-in applied
(compblock.patch + compblock.calibration.yaml), from the repository root:

    python3 validation/results/h200-compblock/compblock_gemm_roles.py build/tools/perfmodel/perfmodel

Printed: measured / priced us (priced / measured - 1, %) per projection, and the step's GEMM sum error in us.
"""
import json, subprocess, re, os, tempfile, statistics as st, sys
exe=sys.argv[1]
tmp=tempfile.mkdtemp()
for line in open('validation/results/h200-compiled2/compiled2.jsonl'):
    r=json.loads(line)
    tr=r['trace']
    g=[]  # (name, dur incl following reduce)
    for i,k in enumerate(tr):
        if k[0].startswith('nvjet'):
            d=k[1]
            if i+1<len(tr) and 'splitKreduce' in tr[i+1][0]: d+=tr[i+1][1]
            g.append((k[0],d))
    L=r['layers']
    per=[[g[l*7+j][1] for l in range(L)] for j in range(7)]
    names=[g[j][0][12:40] for j in range(7)]
    text=open(f"models/{r['model']}.yaml").read()
    text=re.sub(r"^num_hidden_layers:\s*\d+", f"num_hidden_layers: {r['layers']}", text, flags=re.M)
    p=os.path.join(tmp,'m.yaml'); open(p,'w').write(text)
    d=json.loads(subprocess.run([exe,'ops','--card','h200','--model',p,'--batch',str(r['batch']),'--ctx',str(r['kv_len']),'--phase','decode','--impl','compiled','--format','json'],capture_output=True,text=True,check=True).stdout)
    pr=[o for o in d['ops'] if o['kind']=='gemm' and o['name'].endswith('proj')]
    s=f"{r['model'][:10]:10s} L{L:2d} b{r['batch']:2d}"
    tot=0
    for j,o in enumerate(pr):
        m=st.median(per[j]); pu=o['device_time_s']*1e6/o.get('count',L)
        tot+=(pu-m)*L
        s+=f" {o['name'][:4]} {m:5.1f}/{pu:5.1f}({100*(pu/m-1):+4.0f})"
    print(s, f" sum {tot:+.1f}us")
