s|^  # TODO cmd:.*|  cmd: ["{venv_dir}/bin/python3", "-m", "scripts.performance.llm.pretrain_nemotron4_{size}", "--max_steps", "{steps}", "-tp", "{tp}"]|
s|^  15b: {}|  15b: {layers: 32, hidden: 6144}|
s|^  340b: {}|  340b: {layers: 96, hidden: 18432}|
s|^    # TODO params:.*|    params: {tp: 2}|
