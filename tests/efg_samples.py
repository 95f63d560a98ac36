"""Small .efg texts shared by tests."""

IMPERFECT_RECALL = """EFG 2 R "forgetful" { "A" "B" }
""

p "" 1 1 "first" { "l" "r" } 0
p "" 1 2 "second" { "x" "y" } 0
t "" 1 "o1" { 1, -1 }
t "" 2 "o2" { 0, 0 }
p "" 1 2 "second" { "x" "y" } 0
t "" 3 "o3" { 0, 0 }
t "" 4 "o4" { 1, -1 }
"""
