"""One module per stage group; `wizard.stages.registry` lists them in order."""
