s|^  # TODO cmd:.*|  cmd: ["{venv_dir}/bin/python3", "-m", "scripts.performance.llm.pretrain_grok1_314b", "--max_steps", "{steps}"]|
s|^  314b: {}|  314b: {layers: 64, hidden: 6144}|
s|^    # TODO proves:.*|    proves: [tokenizer/done]|
