"""Games and strategies exchanged with peer tools: OpenSpiel (games named
``openspiel:GAME``, answers as ``TabularPolicy``) and pygambit (games built in pygambit).
Each peer is an optional extra, imported only when used."""
