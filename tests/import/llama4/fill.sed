s|^  # TODO cmd:.*|  cmd: ["{venv_dir}/bin/python3", "-m", "scripts.performance.llm.finetune_llama4_e128", "--max_steps", "{steps}"]|
s|^  400b: {}|  400b: {layers: 48, hidden: 5120}|
s|^    # TODO proves:.*|    proves: [checkpoint_and_dataset/done]|
